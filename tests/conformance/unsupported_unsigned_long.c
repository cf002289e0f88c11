/* unsigned long is named as not supported (long is 64-bit signed here) */
int main(void) { unsigned long n = 5; return 0; }
