/* __LINE__ and __STDC__ */
#include <stdio.h>
#define HERE __LINE__
int main(void) {
    printf("%d\n", __LINE__);
    printf("%d\n", HERE);
    printf("%d %d\n", __STDC__, __STDC_VERSION__ >= 199901L);
    return 0;
}
