/* comparisons give int 0 or 1 */
#include <stdio.h>
int main(void) {
    int a = 3, b = 7;
    printf("%d %d %d %d %d %d\n", a < b, a <= b, a > b, a >= b, a == b, a != b);
    printf("%d\n", (a < b) + (b < a) + (a == 3));
    return 0;
}
