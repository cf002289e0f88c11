/* short is named as not supported */
int main(void) { short s = 5; return 0; }
