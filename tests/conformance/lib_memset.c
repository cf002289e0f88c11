/* memset: zero for any type, any byte for chars */
#include <stdio.h>
#include <string.h>
int main(void) {
    int a[4] = {1, 2, 3, 4};
    char s[6];
    memset(a, 0, sizeof a);
    memset(s, 'x', 5);
    s[5] = 0;
    printf("%d %d %s\n", a[0], a[3], s);
    return 0;
}
