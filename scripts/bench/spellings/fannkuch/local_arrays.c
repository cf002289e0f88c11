/* fannkuch-redux with its arrays in main's frame (scripts/bench-spellings.sh): the same
 * program as scripts/bench/suite/fannkuch.c, its three arrays local to main. */
#define N 9
void main() {
    int perm[N], perm1[N], count[N];
    int i, k, r, t, flips, maxflips, checksum, nperm, p0, j;
    for (i = 0; i < N; i++)
        perm1[i] = i;
    r = N;
    maxflips = 0;
    checksum = 0;
    nperm = 0;
    while (1) {
        while (r != 1) {
            count[r - 1] = r;
            r--;
        }
        for (i = 0; i < N; i++)
            perm[i] = perm1[i];
        flips = 0;
        k = perm[0];
        while (k != 0) {
            i = 0;
            j = k;
            while (i < j) {
                t = perm[i]; perm[i] = perm[j]; perm[j] = t;
                i++;
                j--;
            }
            flips++;
            k = perm[0];
        }
        if (flips > maxflips)
            maxflips = flips;
        if (nperm % 2 == 0)
            checksum = checksum + flips;
        else
            checksum = checksum - flips;
        while (1) {
            if (r == N) {
                printf("%d\nPfannkuchen(%d) = %d\n", checksum, N, maxflips);
                return;
            }
            p0 = perm1[0];
            for (i = 0; i < r; i++)
                perm1[i] = perm1[i + 1];
            perm1[r] = p0;
            count[r]--;
            if (count[r] > 0)
                break;
            r++;
        }
        nperm++;
    }
}
