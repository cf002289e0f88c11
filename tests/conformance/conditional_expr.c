/* ?: including nesting and as an lvalue-free value */
#include <stdio.h>
int main(void) {
    int i;
    for (i = -2; i <= 2; i++)
        printf("%d:%s ", i, i < 0 ? "neg" : i == 0 ? "zero" : "pos");
    printf("\n%d\n", (3 > 2 ? 10 : 20) + (0 ? 1 : 2));
    return 0;
}
