/* A bit-field wider than its type is refused, naming the field and the range. */
struct flags { int ready : 1; int mode : 33; };
int main(void) { return 0; }
