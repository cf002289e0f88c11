/* scanf reads numbers from standard input; returns how many it assigned */
#include <stdio.h>
int main(void) {
    int a, b, s = 0, n;
    n = scanf("%d %d", &a, &b);
    printf("%d %d %d\n", n, a, b);
    while (scanf("%d", &a) == 1) s += a;
    printf("%d\n", s);
    return 0;
}
