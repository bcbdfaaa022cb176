/* PolyBench/C 4.2.1 init_array body shared by cholesky, lu and ludcmp
   ("Make the matrix positive semi-definite"). Expects N and A[N][N]. */
static void init_psd(int n)
{
  int i, j;
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE)(-j % n) / n + 1;
    for (j = i+1; j < n; j++) {
      A[i][j] = 0;
    }
    A[i][i] = 1;
  }
  int r, s, t;
  DATA_TYPE (*B)[N] = (DATA_TYPE (*)[N]) malloc(sizeof(DATA_TYPE) * N * N);
  for (r = 0; r < n; ++r)
    for (s = 0; s < n; ++s)
      B[r][s] = 0;
  for (t = 0; t < n; ++t)
    for (r = 0; r < n; ++r)
      for (s = 0; s < n; ++s)
        B[r][s] += A[r][t] * A[s][t];
  for (r = 0; r < n; ++r)
    for (s = 0; s < n; ++s)
      A[r][s] = B[r][s];
  free(B);
}
