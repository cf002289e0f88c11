/* the ## operator builds names */
#include <stdio.h>
#define VAR(n) var_##n
#define CAT(a, b) a##b
int main(void) {
    int VAR(1) = 10, VAR(2) = 20;
    int xy = 5;
    printf("%d %d %d %d\n", var_1, var_2, CAT(x, y), CAT(12, 34));
    return 0;
}
