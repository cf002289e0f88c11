/* forward goto to a cleanup label */
#include <stdio.h>
int work(int fail) {
    int status = 0;
    printf("start ");
    if (fail) { status = -1; goto cleanup; }
    printf("work ");
cleanup:
    printf("cleanup\n");
    return status;
}
int main(void) {
    int a = work(0);
    int b = work(1);
    printf("%d %d\n", a, b);
    return 0;
}
