/* for loops: counting, nested, empty parts */
#include <stdio.h>
int main(void) {
    int i, j, s = 0;
    for (i = 0; i < 5; i++)
        for (j = i; j < 5; j++)
            s += i * j;
    printf("%d\n", s);
    i = 0;
    for (;;) { if (++i == 7) break; }
    printf("%d\n", i);
    return 0;
}
