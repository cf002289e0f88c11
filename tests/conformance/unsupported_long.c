/* long is named as not supported */
int main(void) { long n = 5; return 0; }
