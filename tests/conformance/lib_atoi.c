/* atoi: leading blanks, sign, stops at a non-digit */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    printf("%d %d %d %d %d\n", atoi("42"), atoi("  -17"), atoi("+8x"), atoi("abc"), atoi("007"));
    return 0;
}
