/* unsigned long conversions: from int (sign-extended), unsigned int (zero-extended), long, double; to int, unsigned int, double; usual arithmetic conversions */
#include <stdio.h>
#include <stdint.h>

int main(void) {
    int i = -5;
    unsigned int u = 4000000000u;
    long l = -7;
    unsigned long a = i, b = u, c = l;
    printf("%lu %lu %lu\n", a, b, c);
    double d = 1e19;
    unsigned long e = d;
    printf("%lu %.1f %.1f\n", e, (double)e, (double)(1UL << 63));
    unsigned long big = 0x1234567890ABCDEFUL;
    printf("%d %u %ld\n", (int)big, (unsigned int)big, (long)big);
    /* long meets unsigned long: unsigned long */
    printf("%d %d\n", l < 1UL, -1L < 1UL);
    /* long meets unsigned int: long */
    printf("%d\n", l < 1u);
    uint64_t m = UINT64_MAX;
    float f = (float)(m >> 40);
    printf("%lu %.1f\n", m, f);
    printf("%zu %d\n", sizeof(unsigned long) == sizeof(long), (int)(sizeof(unsigned long long) == sizeof(long long)));
    return 0;
}
