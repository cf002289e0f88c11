/* macros expanded inside arguments of other macros */
#include <stdio.h>
#define TWICE(x) (2 * (x))
#define ADD(a, b) ((a) + (b))
int main(void) {
    printf("%d\n", ADD(TWICE(3), TWICE(ADD(1, 2))));
    printf("%d\n", TWICE(TWICE(TWICE(1))));
    return 0;
}
