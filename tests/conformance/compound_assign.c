/* every compound assignment operator */
#include <stdio.h>
int main(void) {
    int x = 100;
    x += 5; printf("%d ", x);
    x -= 10; printf("%d ", x);
    x *= 3; printf("%d ", x);
    x /= 7; printf("%d ", x);
    x %= 11; printf("%d ", x);
    x <<= 4; printf("%d ", x);
    x >>= 2; printf("%d ", x);
    x &= 0x1c; printf("%d ", x);
    x |= 0x41; printf("%d ", x);
    x ^= 0xff; printf("%d\n", x);
    return 0;
}
