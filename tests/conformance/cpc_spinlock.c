/* cpc-only: a spinlock protects a shared counter updated by many processes */
#include <stdio.h>
spinlock guard;
int counter;
int main(void) {
    int i;
    forall (i from 1 to 10) {
        lock(guard);
        counter = counter + i;
        unlock(guard);
    }
    printf("%d\n", counter);
    return 0;
}
