/* union is named as not supported */
union number { int i; float f; };
int main(void) { return 0; }
