/* a standard header that is not provided says so */
#include <time.h>
int main(void) { return 0; }
