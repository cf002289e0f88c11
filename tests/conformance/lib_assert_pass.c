/* assert that holds does nothing */
#include <stdio.h>
#include <assert.h>
int main(void) {
    int x = 3;
    assert(x == 3);
    assert(x > 0 && x < 10);
    printf("ok\n");
    return 0;
}
