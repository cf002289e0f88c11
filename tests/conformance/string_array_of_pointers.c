/* an array of string pointers */
#include <stdio.h>
int main(void) {
    char *topo[] = {"line", "ring", "mesh", "torus", "hypercube"};
    int i, longest = 0;
    for (i = 0; i < 5; i++) {
        int n = 0;
        while (topo[i][n]) n++;
        if (n > longest) longest = n;
    }
    printf("%s %s %d\n", topo[2], topo[4], longest);
    return 0;
}
