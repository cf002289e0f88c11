/* unsigned is named as not supported */
int main(void) { unsigned int u = 5; return 0; }
