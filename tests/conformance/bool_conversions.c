/* _Bool: every conversion to it compares with zero; ++ and -- keep it 0 or 1 */
#include <stdio.h>
#include <stdbool.h>
int g(void);
int main(void) {
    bool a = 5, b = 0.0f, c = "x";
    _Bool d = -3;
    int *p = 0;
    bool e = p;
    a += 3;
    d = d + 5;
    printf("%d %d %d %d %d %d %d\n", a, b, c, d, e, (bool)7, (int)sizeof(bool));
    b++;
    printf("%d\n", b);
    b++;
    printf("%d\n", b);
    return g();
}
int g(void) { _Bool x = 1, y = 0; int r1 = x--, r2 = x, r3 = --y, r4 = y++; printf("%d %d %d %d %d\n", r1, r2, r3, r4, y); x++; x++; printf("%d\n", x); return 0; }
