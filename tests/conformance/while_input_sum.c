/* reading until scanf fails, with an average */
#include <stdio.h>
int main(void) {
    int v, n = 0, s = 0;
    while (scanf("%d", &v) == 1) { s += v; n++; }
    if (n) printf("%d %d %d\n", n, s, s / n);
    return 0;
}
