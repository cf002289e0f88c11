/* explicit values, following values, negative values */
#include <stdio.h>
enum { A = 5, B, C = -2, D, E = A + C * 10 };
int main(void) {
    printf("%d %d %d %d %d\n", A, B, C, D, E);
    return 0;
}
