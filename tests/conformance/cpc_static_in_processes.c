/* cpc-only: a static local is one object shared by every process */
#include <stdio.h>
spinlock g;
int tick(void) { static int n = 0; int v; lock(g); n = n + 1; v = n; unlock(g); return v; }
int main(void) {
    int i;
    forall (i from 1 to 5) tick();
    printf("%d\n", tick());
    return 0;
}
