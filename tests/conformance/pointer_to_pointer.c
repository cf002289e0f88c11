/* pointers to pointers */
#include <stdio.h>
int main(void) {
    int v = 7;
    int *p = &v;
    int **pp = &p;
    **pp = 9;
    printf("%d %d\n", v, **pp);
    return 0;
}
