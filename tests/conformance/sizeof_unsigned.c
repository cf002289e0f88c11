/* sizeof has type size_t, which is unsigned (C11 6.5.3.4): the usual arithmetic
   conversions make -1 compare as a large unsigned value. */
#include <stdio.h>
#include <stddef.h>
int main(void) {
    int a[4];
    printf("%d\n", -1 < sizeof(int));
    printf("%d\n", -1 < sizeof a);
    printf("%d\n", sizeof(int) - 5 > 0);
    size_t n = 0;
    n = n - 1;
    printf("%d\n", n > 100);
    printf("%d\n", (int)(sizeof a / sizeof a[0]));
    return 0;
}
