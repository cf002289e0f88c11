/* long and long long: 64-bit arithmetic, large constants, conversions, printf %ld %lx, scanf %ld */
#include <stdio.h>
#include <limits.h>
long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) {
    long a = 3000000000;
    long long b = 1LL << 40;
    long c = -9223372036854775807L - 1;
    int i = 7;
    unsigned u = 4000000000u;
    long s = 0;
    for (i = 1; i <= 100000; i++) s += (long)i * i;
    printf("%ld %lld %ld\n", a, b, c);
    printf("%ld %ld %ld\n", fact(20), s, a * 3 / 7 % 1000);
    printf("%ld %ld %d\n", u + 1L, (long)u * 2, (int)(a >> 1));
    printf("%lx %lo %lu\n", b - 1, 8L, 5L);
    printf("%d %d %ld\n", a > u, -a < 0, ~0L);
    double d = a;
    printf("%.1f %ld\n", d * 2, (long)(d / 7));
    long x;
    if (scanf("%ld", &x) == 1) printf("%ld\n", x * 2);
    return 0;
}
