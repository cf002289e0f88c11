/* function-like macros with parenthesised parameters */
#include <stdio.h>
#define SQ(x) ((x) * (x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(v, lo, hi) MAX(lo, (v) < (hi) ? (v) : (hi))
int main(void) {
    printf("%d %d %d %d\n", SQ(3 + 1), MAX(4, 9), CLAMP(15, 0, 10), CLAMP(-3, 0, 10));
    return 0;
}
