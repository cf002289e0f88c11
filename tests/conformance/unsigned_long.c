/* unsigned long and unsigned long long: wrap-around, unsigned division, shifts, comparisons, constants, %lu %llu %lx */
#include <stdio.h>
#include <limits.h>

unsigned long fnv1a(const char *s) {
    unsigned long h = 14695981039346656037UL;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211UL;
    }
    return h;
}

int main(void) {
    unsigned long a = ULONG_MAX;
    unsigned long long b = 1ULL << 63;
    unsigned long zero = 0;
    printf("%lu %llu %lu\n", a, b, zero - 1);
    printf("%lu %lu %lu\n", a / 3, a % 1000, b >> 62);
    printf("%d %d %d %d\n", a > b, b > 1, zero - 1 == a, (long)a < 0);
    printf("%lx %lX %lo\n", a, b, b);
    printf("%lu\n", fnv1a("cppe"));
    unsigned long x = 10;
    x -= 20;
    printf("%lu %lu\n", x, x + 20);
    x = 3;
    x <<= 62;
    x++;
    printf("%lu %lu %lu\n", x, ~x, -x);
    printf("%lu %llu\n", 0xFFFFFFFFFFFFFFFF, 18446744073709551615ULL);
    return 0;
}
