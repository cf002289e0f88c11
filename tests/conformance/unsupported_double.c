/* double is named as not supported */
int main(void) { double d = 1.0; return 0; }
