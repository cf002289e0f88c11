/* stdarg.h says why it is not there */
#include <stdarg.h>
int main(void) { return 0; }
