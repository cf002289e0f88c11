/* #if and #elif with integer expressions and defined */
#include <stdio.h>
#define LEVEL 3
int main(void) {
#if LEVEL > 5
    printf("high\n");
#elif LEVEL >= 3 && defined(LEVEL)
    printf("medium\n");
#else
    printf("low\n");
#endif
#if !defined UNSET || 0
    printf("unset\n");
#endif
#if (1 << 4) == 16 && 7 % 3 == 1 && -1 < 0
    printf("arithmetic\n");
#endif
    return 0;
}
