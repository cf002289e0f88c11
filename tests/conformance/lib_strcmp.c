/* strcmp and strncmp: only the sign is portable */
#include <stdio.h>
#include <string.h>
int sign(int v) { return (v > 0) - (v < 0); }
int main(void) {
    printf("%d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("b", "a")), sign(strcmp("same", "same")));
    printf("%d %d\n", sign(strncmp("prefix1", "prefix2", 6)), sign(strncmp("ab", "b", 1)));
    printf("%d\n", sign(strcmp("ab", "abc")));
    return 0;
}
