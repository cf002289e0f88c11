/* labels live in their own name space */
#include <stdio.h>
int main(void) {
    int done = 0;
    goto done;
    done = 1;
done:
    printf("%d\n", done);
    return 0;
}
