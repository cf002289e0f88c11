/* one-dimensional arrays: store, load, sum */
#include <stdio.h>
int main(void) {
    int a[10];
    int i, s = 0;
    for (i = 0; i < 10; i++) a[i] = i * i;
    for (i = 0; i < 10; i++) s += a[i];
    printf("%d %d %d\n", a[0], a[9], s);
    return 0;
}
