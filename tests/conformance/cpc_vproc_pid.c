/* cpc-only: vproc() and pid() of the main process */
#include <stdio.h>
int main(void) {
    printf("%d %d\n", vproc(), pid());
    return 0;
}
