/* <signal.h> is not provided: the #error names it. */
#include <signal.h>
int main(void) { return 0; }
