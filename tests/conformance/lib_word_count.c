/* counting words from input with isspace */
#include <stdio.h>
#include <ctype.h>
int main(void) {
    int c, words = 0, in = 0;
    while ((c = getchar()) != EOF) {
        if (isspace(c)) in = 0;
        else if (!in) { in = 1; words++; }
    }
    printf("%d\n", words);
    return 0;
}
