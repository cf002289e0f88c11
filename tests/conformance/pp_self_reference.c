/* a macro naming itself is not expanded again (C's rule) */
#include <stdio.h>
int foo = 3;
#define foo (foo + 1)
int main(void) {
    printf("%d\n", foo);
    return 0;
}
