/* unsigned int: division, remainder, shifts, comparisons and conversions as C does them */
#include <stdio.h>
unsigned hash(const char *s) {
    unsigned h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h;
}
int main(void) {
    unsigned int a = 4000000000u, b = 7;
    unsigned c = 0xFFFFFFFF;
    int n = -1;
    float f = a;
    unsigned d = 3000000000.0f;
    printf("%u %u %u %u\n", a / b, a % b, a >> 28, c >> 1);
    printf("%d %d %d\n", a > b, n < 1u, -1 < 0);
    printf("%u %u %.0f %u\n", c + 1, b - 8, f, d);
    printf("%u %x\n", hash("cppe"), hash(""));
    printf("%u %d\n", (unsigned)-5, (int)(a - 1));
    unsigned k = 10;
    k -= 11;
    printf("%u %u\n", k, k / 2);
    return 0;
}
