/* operator precedence and associativity */
#include <stdio.h>
int main(void) {
    int x = 2 + 3 * 4 - 6 / 2;
    int y = (2 + 3) * (4 - 6) / 2;
    int z = 100 / 10 / 5;
    int w = 10 - 4 - 3;
    printf("%d %d %d %d\n", x, y, z, w);
    printf("%d\n", 1 + 2 << 3 > 20 == 1 & 7 ^ 2 | 8);
    return 0;
}
