/* bit-fields are named as not supported */
struct flags { int ready : 1; int mode : 3; };
int main(void) { return 0; }
