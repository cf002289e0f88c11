/* & | ^ ~ << >> on int */
#include <stdio.h>
int main(void) {
    int a = 0x5a, b = 0x3c;
    printf("%d %d %d %d\n", a & b, a | b, a ^ b, ~a & 0xff);
    printf("%d %d %d\n", 1 << 10, 1024 >> 3, -16 >> 2);
    printf("%x %X\n", a << 4, b);
    return 0;
}
