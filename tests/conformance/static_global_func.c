/* static at file scope: internal linkage, same program behaviour */
#include <stdio.h>
static int hidden = 3;
static int triple(int x) { return 3 * x; }
int main(void) {
    printf("%d\n", triple(hidden));
    return 0;
}
