/* #error stops the compilation with its message */
#define VERSION 1
#if VERSION < 2
#error "version 2 or later is required"
#endif
int main(void) { return 0; }
