/* cpc-only: fork a child, join it */
#include <stdio.h>
int result;
void work(int n) { result = n * 3; }
int main(void) {
    fork work(14);
    join;
    printf("%d\n", result);
    return 0;
}
