/* scanf's h and hh convert what they read to short and char, as C's scanf stores it
 * through a short * or char *; j is intmax_t (long), z size_t. */
#include <stdio.h>
int main() {
    short s; signed char c; unsigned short us; unsigned char uc, ux; signed char pc; long l; int n, k; size_t z;
    n = sscanf("70000 300 -1 258 5000000000 0x1ff -1 12 77", "%hd %hhd %hu %hhu %ld %hhx %hhd %zu %jd", &s, &c, &us, &uc, &l, &ux, &pc, &z, &l);
    printf("%d %d %d %u %u %ld %u %d %u\n", n, s, c, us, uc, l, ux, pc, (unsigned)z);
    k = sscanf("-129 65537", "%hhi %hi", &c, &s);
    printf("%d %d %d %d %d\n", k, c, s, c < 0, pc < 0);
    return 0;
}
