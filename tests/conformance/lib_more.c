/* Library functions of <math.h>, <stdlib.h>, <string.h> and <stdio.h> beyond the first
   round, each checked against gcc's output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int by_value(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
struct pair { int key; int order; };
static int by_key(const void *a, const void *b) {
    const struct pair *p = a, *q = b;
    return p->key - q->key;
}
int main(void) {
    printf("%.6f %.6f %.6f %.6f\n", atan(1.0), atan2(1.0, -1.0), asin(0.5), acos(0.5));
    printf("%.6f %.6f %.6f\n", sinh(1.0), cosh(1.0), tanh(0.5));
    printf("%.6f %.6f %.6f %.6f\n", fmod(7.5, 2.0), fmod(-7.5, 2.0), log10(1000.0), log2(8.0));
    printf("%.1f %.1f %.1f %.1f %.1f\n", exp2(10.0), round(2.5), round(-2.5), trunc(-2.7), hypot(3.0, 4.0));
    printf("%.1f %.1f %.6f\n", fmin(1.0, 2.0), fmax(1.0, 2.0), cbrt(27.0));
    printf("%d %d %d %d\n", isnan(0.0 / 0.0) != 0, isnan(1.0) != 0, isinf(1.0 / 0.0) != 0, isinf(1.0) != 0);
    int e;
    double m = frexp(48.0, &e);
    double ip;
    double fp = modf(-3.25, &ip);
    printf("%.4f %d %.1f %.2f %.1f\n", m, e, ldexp(0.75, 6), fp, ip);
    printf("%ld %ld\n", labs(-5L), llabs(-7L));
    char *end;
    long v = strtol("  -0x1fZ", &end, 0);
    printf("%ld [%s] %ld %ld %lu\n", v, end, strtol("0755", 0, 0), strtol("zz", 0, 36), strtoul("42", 0, 10));
    printf("%ld %ld\n", atol("123456789012"), strtol("12abc", &end, 10));
    printf("[%s]\n", end);
    double d = strtod("  3.25e2xyz", &end);
    printf("%.3f [%s] %.6f %.6f %g\n", d, end, atof("-0.125"), atof("1e-3"), strtod("6.02214076e23", 0));
    int a[8] = {5, 3, 9, 1, 7, 3, 8, 2};
    qsort(a, 8, sizeof a[0], by_value);
    for (int i = 0; i < 8; i++) printf("%d ", a[i]);
    printf("\n");
    struct pair ps[6] = {{2, 0}, {1, 1}, {2, 2}, {0, 3}, {1, 4}, {2, 5}};
    qsort(ps, 6, sizeof ps[0], by_key);
    for (int i = 0; i < 6; i++) printf("%d.%d ", ps[i].key, ps[i].order);
    printf("\n");
    int key = 7;
    int *hit = bsearch(&key, a, 8, sizeof a[0], by_value);
    key = 4;
    printf("%d %d\n", hit ? (int)(hit - a) : -1, bsearch(&key, a, 8, sizeof a[0], by_value) == NULL);
    printf("%d\n", getenv("CPPE_SURELY_UNSET_VARIABLE") == NULL);
    printf("%d %d\n", (int)strspn("aabbcx", "ab"), (int)strcspn("hello, world", ", "));
    printf("[%s] %d\n", strpbrk("hello, world", " ,"), strpbrk("abc", "xyz") == NULL);
    const char *hay = "memory";
    printf("[%s] %d\n", (char *)memchr(hay, 'o', 6), memchr(hay, 'z', 6) == NULL);
    char *dup = strdup("copy me");
    char *half = strndup("truncate", 5);
    printf("[%s] [%s]\n", dup, half);
    free(dup);
    free(half);
    printf("%d\n", fflush(stdout));
    return 0;
}
