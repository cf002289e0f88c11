/* long double is double here (constants with L, printf's %Lf); a struct assignment's
   value can be assigned again (r = q = p), as C allows. */
#include <stdio.h>
struct P { int a, b; double w; };
int main(void) {
    long double x = 1.5L;
    long double y = x * 2;
    struct P p = {1, 2, 0.5}, q, r, s[2];
    r = q = p;
    s[1] = s[0] = r;
    printf("%.2Lf %.2f %Lg\n", y, (double)x, (long double)0.25);
    printf("%d %d %g %d %d\n", q.b, r.a, r.w, s[0].b, s[1].a);
    return 0;
}
