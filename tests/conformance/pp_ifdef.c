/* #ifdef, #ifndef, #else */
#include <stdio.h>
#define FEATURE
int main(void) {
#ifdef FEATURE
    printf("feature on\n");
#else
    printf("feature off\n");
#endif
#ifndef MISSING
    printf("missing is not defined\n");
#endif
    return 0;
}
