/* Conversion to _Bool compares with zero (C11 6.3.1.2), from every arithmetic type. */
#include <stdio.h>
int main(void) {
    _Bool b = 0.1;
    long big = 1L << 40;
    _Bool a = big;
    double z = 0.0;
    _Bool c = z;
    _Bool d = (_Bool)0.5;
    _Bool e = 3;
    float f = 0.25f;
    _Bool g = f;
    unsigned long ul = 1UL << 33;
    _Bool h = ul;
    _Bool i = -0.0;
    _Bool j;
    j = 1e-300;
    printf("%d %d %d %d %d %d %d %d %d\n", b, a, c, d, e, g, h, i, j);
    return 0;
}
