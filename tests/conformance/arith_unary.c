/* unary minus, plus, logical not, bitwise complement */
#include <stdio.h>
int main(void) {
    int a = 5;
    printf("%d %d %d %d %d %d\n", -a, +a, !a, !0, ~a, ~-1);
    printf("%d\n", - -a);
    return 0;
}
