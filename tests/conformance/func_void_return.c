/* void functions with early return */
#include <stdio.h>
void show(int n) {
    if (n < 0) { printf("negative\n"); return; }
    printf("%d\n", n);
}
int main(void) {
    show(5);
    show(-1);
    return 0;
}
