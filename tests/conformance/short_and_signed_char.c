/* short, unsigned short and signed char: every conversion wraps into the range, arithmetic is int */
#include <stdio.h>
short gs = 70000;
signed char gc = 200;
unsigned short gu = -1;
short sq(short x) { return x * x; }
int main(void) {
    short s = 32767;
    unsigned short u = 65535;
    signed char c = 127;
    short int si = -5;
    int i;
    s++;
    u++;
    c += 1;
    printf("%d %d %d %d\n", s, u, c, si);
    printf("%d %d %d\n", gs, gc, gu);
    printf("%d %d\n", sq(300), (short)100000);
    s = 1000;
    for (i = 0; i < 40; i++) s = s * 3 + 1;
    printf("%d\n", s);
    signed char arr[3] = {-1, 255, 128};
    printf("%d %d %d\n", arr[0], arr[1], arr[2]);
    unsigned short us = 40000;
    printf("%d %u\n", us * 2, (unsigned)us);
    s = -3.7f;
    printf("%d %hd\n", s, (short)65535);
    return 0;
}
