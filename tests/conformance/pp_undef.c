/* #undef then redefine */
#include <stdio.h>
#define V 1
int a = V;
#undef V
#define V 2
int b = V;
int main(void) {
    printf("%d %d\n", a, b);
    return 0;
}
