"""PolyBench/C 4.2.1 kernel templates for gen.py.

Each entry gives
  params     : size parameter names (in the order of the kernel's .h file)
  sizes      : exact PolyBench 4.2.1 values per dataset (MINI SMALL MEDIUM LARGE EXTRALARGE)
  scalars_in : DATA_TYPE scalars set by init_array and passed to the kernel (f64 args)
  arrays     : kernel array arguments in PolyBench's order: (name, [dims], elemtype)
  locals     : kernel-local temporaries of PolyBench (scalars -> memref<1xf64>,
               local arrays -> memref<..xf64>); passed as extra kernel arguments so the
               kernel function stays allocation-free
  init_temps : temporary arrays allocated by PolyBench's init_array
  outputs    : arrays dumped by PolyBench's print_array (checksummed, in that order)
  init       : body of init_array (C subset; `*alpha = 1.5` written `alpha = 1.5`)
  kernel     : body of the kernel's #pragma scop region (C subset), verbatim
               modulo the notes in README.md
Size parameters may be spelled N, _PB_N or n inside the templates.
"""


def A(name, *dims, ty="f64"):
    return (name, list(dims), ty)


def S(name):
    return (name, [])


def sizes(*rows):
    return dict(zip(["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"], rows))


KERNELS = {}

# ---------------------------------------------------------------- datamining
KERNELS["correlation"] = dict(
    params=["M", "N"],
    sizes=sizes((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000)),
    scalars_in=["float_n"],
    arrays=[A("data", "N", "M"), A("corr", "M", "M"), A("mean", "M"), A("stddev", "M")],
    outputs=["corr"],
    init=r"""
  float_n = (DATA_TYPE)N;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE)(i*j)/M + i;
""",
    kernel=r"""
  eps = SCALAR_VAL(0.1);
  for (j = 0; j < _PB_M; j++)
    {
      mean[j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_N; i++)
        mean[j] += data[i][j];
      mean[j] /= float_n;
    }
   for (j = 0; j < _PB_M; j++)
    {
      stddev[j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_N; i++)
        stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
      stddev[j] /= float_n;
      stddev[j] = SQRT_FUN(stddev[j]);
      stddev[j] = stddev[j] <= eps ? SCALAR_VAL(1.0) : stddev[j];
    }
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      {
        data[i][j] -= mean[j];
        data[i][j] /= SQRT_FUN(float_n) * stddev[j];
      }
  for (i = 0; i < _PB_M-1; i++)
    {
      corr[i][i] = SCALAR_VAL(1.0);
      for (j = i+1; j < _PB_M; j++)
        {
          corr[i][j] = SCALAR_VAL(0.0);
          for (k = 0; k < _PB_N; k++)
            corr[i][j] += (data[k][i] * data[k][j]);
          corr[j][i] = corr[i][j];
        }
    }
  corr[_PB_M-1][_PB_M-1] = SCALAR_VAL(1.0);
""")

KERNELS["covariance"] = dict(
    params=["M", "N"],
    sizes=sizes((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000)),
    scalars_in=["float_n"],
    arrays=[A("data", "N", "M"), A("cov", "M", "M"), A("mean", "M")],
    outputs=["cov"],
    init=r"""
  float_n = (DATA_TYPE)n;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = ((DATA_TYPE) i*j) / M;
""",
    kernel=r"""
  for (j = 0; j < _PB_M; j++)
    {
      mean[j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_N; i++)
        mean[j] += data[i][j];
      mean[j] /= float_n;
    }
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++)
      {
        cov[i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_N; k++)
          cov[i][j] += data[k][i] * data[k][j];
        cov[i][j] /= (float_n - SCALAR_VAL(1.0));
        cov[j][i] = cov[i][j];
      }
""")

# ---------------------------------------------------------------- blas
KERNELS["gemm"] = dict(
    params=["NI", "NJ", "NK"],
    sizes=sizes((20, 25, 30), (60, 70, 80), (200, 220, 240), (1000, 1100, 1200), (2000, 2300, 2600)),
    scalars_in=["alpha", "beta"],
    arrays=[A("C", "NI", "NJ"), A("A", "NI", "NK"), A("B", "NK", "NJ")],
    outputs=["C"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE) ((i*j+1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) (i*(j+1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) (i*(j+2) % nj) / nj;
""",
    kernel=r"""
  for (i = 0; i < _PB_NI; i++) {
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_NK; k++) {
       for (j = 0; j < _PB_NJ; j++)
          C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
""")

KERNELS["gemver"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    scalars_in=["alpha", "beta"],
    arrays=[A("A", "N", "N"), A("u1", "N"), A("v1", "N"), A("u2", "N"), A("v2", "N"),
            A("w", "N"), A("x", "N"), A("y", "N"), A("z", "N")],
    outputs=["w"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++)
    {
      u1[i] = i;
      u2[i] = ((i+1)/fn)/2.0;
      v1[i] = ((i+1)/fn)/4.0;
      v2[i] = ((i+1)/fn)/6.0;
      y[i] = ((i+1)/fn)/8.0;
      z[i] = ((i+1)/fn)/9.0;
      x[i] = 0.0;
      w[i] = 0.0;
      for (j = 0; j < n; j++)
        A[i][j] = (DATA_TYPE) (i*j % n) / n;
    }
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < _PB_N; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      w[i] = w[i] +  alpha * A[i][j] * x[j];
""")

KERNELS["gesummv"] = dict(
    params=["N"],
    sizes=sizes((30,), (90,), (250,), (1300,), (2800,)),
    scalars_in=["alpha", "beta"],
    arrays=[A("A", "N", "N"), A("B", "N", "N"), A("tmp", "N"), A("x", "N"), A("y", "N")],
    outputs=["y"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < n; i++)
    {
      x[i] = (DATA_TYPE)( i % n) / n;
      for (j = 0; j < n; j++) {
        A[i][j] = (DATA_TYPE) ((i*j+1) % n) / n;
        B[i][j] = (DATA_TYPE) ((i*j+2) % n) / n;
      }
    }
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++)
    {
      tmp[i] = SCALAR_VAL(0.0);
      y[i] = SCALAR_VAL(0.0);
      for (j = 0; j < _PB_N; j++)
        {
          tmp[i] = A[i][j] * x[j] + tmp[i];
          y[i] = B[i][j] * x[j] + y[i];
        }
      y[i] = alpha * tmp[i] + beta * y[i];
    }
""")

KERNELS["symm"] = dict(
    params=["M", "N"],
    sizes=sizes((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)),
    scalars_in=["alpha", "beta"],
    arrays=[A("C", "M", "N"), A("A", "M", "M"), A("B", "M", "N")],
    locals=[S("temp2")],
    outputs=["C"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
      B[i][j] = (DATA_TYPE) ((n+i-j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <=i; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % 100) / m;
    for (j = i+1; j < m; j++)
      A[i][j] = -999;
  }
""",
    kernel=r"""
   for (i = 0; i < _PB_M; i++)
      for (j = 0; j < _PB_N; j++ )
      {
        temp2 = 0;
        for (k = 0; k < i; k++) {
           C[k][j] += alpha*B[i][j] * A[i][k];
           temp2 += B[k][j] * A[i][k];
        }
        C[i][j] = beta * C[i][j] + alpha*B[i][j] * A[i][i] + alpha * temp2;
     }
""")

KERNELS["syr2k"] = dict(
    params=["M", "N"],
    sizes=sizes((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)),
    scalars_in=["alpha", "beta"],
    arrays=[A("C", "N", "N"), A("A", "N", "M"), A("B", "N", "M")],
    outputs=["C"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (DATA_TYPE) ((i*j+1)%n) / n;
      B[i][j] = (DATA_TYPE) ((i*j+2)%m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE) ((i*j+3)%n) / m;
    }
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++)
      for (j = 0; j <= i; j++)
        {
          C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k];
        }
  }
""")

KERNELS["syrk"] = dict(
    params=["M", "N"],
    sizes=sizes((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)),
    scalars_in=["alpha", "beta"],
    arrays=[A("C", "N", "N"), A("A", "N", "M")],
    outputs=["C"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE) ((i*j+1)%n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (DATA_TYPE) ((i*j+2)%m) / m;
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++) {
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
  }
""")

KERNELS["trmm"] = dict(
    params=["M", "N"],
    sizes=sizes((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)),
    scalars_in=["alpha"],
    arrays=[A("A", "M", "M"), A("B", "M", "N")],
    outputs=["B"],
    init=r"""
  alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++) {
      A[i][j] = (DATA_TYPE)((i+j) % m)/m;
    }
    A[i][i] = 1.0;
    for (j = 0; j < n; j++) {
      B[i][j] = (DATA_TYPE)((n+(i-j)) % n)/n;
    }
  }
""",
    kernel=r"""
  for (i = 0; i < _PB_M; i++)
     for (j = 0; j < _PB_N; j++) {
        for (k = i+1; k < _PB_M; k++)
           B[i][j] += A[k][i] * B[k][j];
        B[i][j] = alpha * B[i][j];
     }
""")

# ---------------------------------------------------------------- kernels
KERNELS["2mm"] = dict(
    params=["NI", "NJ", "NK", "NL"],
    sizes=sizes((16, 18, 22, 24), (40, 50, 70, 80), (180, 190, 210, 220), (800, 900, 1100, 1200),
                (1600, 1800, 2200, 2400)),
    scalars_in=["alpha", "beta"],
    arrays=[A("tmp", "NI", "NJ"), A("A", "NI", "NK"), A("B", "NK", "NJ"), A("C", "NJ", "NL"),
            A("D", "NI", "NL")],
    outputs=["D"],
    init=r"""
  alpha = 1.5;
  beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) ((i*j+1) % ni) / ni;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) (i*(j+1) % nj) / nj;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (DATA_TYPE) ((i*(j+3)+1) % nl) / nl;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (DATA_TYPE) (i*(j+2) % nk) / nk;
""",
    kernel=r"""
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++)
      {
        tmp[i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_NK; ++k)
          tmp[i][j] += alpha * A[i][k] * B[k][j];
      }
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++)
      {
        D[i][j] *= beta;
        for (k = 0; k < _PB_NJ; ++k)
          D[i][j] += tmp[i][k] * C[k][j];
      }
""")

KERNELS["3mm"] = dict(
    params=["NI", "NJ", "NK", "NL", "NM"],
    sizes=sizes((16, 18, 20, 22, 24), (40, 50, 60, 70, 80), (180, 190, 200, 210, 220),
                (800, 900, 1000, 1100, 1200), (1600, 1800, 2000, 2200, 2400)),
    arrays=[A("E", "NI", "NJ"), A("A", "NI", "NK"), A("B", "NK", "NJ"), A("F", "NJ", "NL"),
            A("C", "NJ", "NM"), A("D", "NM", "NL"), A("G", "NI", "NL")],
    outputs=["G"],
    init=r"""
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) ((i*j+1) % ni) / (5*ni);
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) ((i*(j+1)+2) % nj) / (5*nj);
  for (i = 0; i < nj; i++)
    for (j = 0; j < nm; j++)
      C[i][j] = (DATA_TYPE) (i*(j+3) % nl) / (5*nl);
  for (i = 0; i < nm; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (DATA_TYPE) ((i*(j+2)+2) % nk) / (5*nk);
""",
    kernel=r"""
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++)
      {
        E[i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_NK; ++k)
          E[i][j] += A[i][k] * B[k][j];
      }
  for (i = 0; i < _PB_NJ; i++)
    for (j = 0; j < _PB_NL; j++)
      {
        F[i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_NM; ++k)
          F[i][j] += C[i][k] * D[k][j];
      }
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++)
      {
        G[i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_NJ; ++k)
          G[i][j] += E[i][k] * F[k][j];
      }
""")

KERNELS["atax"] = dict(
    params=["M", "N"],
    sizes=sizes((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200)),
    arrays=[A("A", "M", "N"), A("x", "N"), A("y", "N"), A("tmp", "M")],
    outputs=["y"],
    init=r"""
  fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++)
      x[i] = 1 + (i / fn);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) ((i+j) % n) / (5*m);
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++)
    y[i] = 0;
  for (i = 0; i < _PB_M; i++)
    {
      tmp[i] = SCALAR_VAL(0.0);
      for (j = 0; j < _PB_N; j++)
        tmp[i] = tmp[i] + A[i][j] * x[j];
      for (j = 0; j < _PB_N; j++)
        y[j] = y[j] + A[i][j] * tmp[i];
    }
""")

KERNELS["bicg"] = dict(
    params=["M", "N"],
    sizes=sizes((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200)),
    arrays=[A("A", "N", "M"), A("s", "M"), A("q", "N"), A("p", "M"), A("r", "N")],
    outputs=["s", "q"],
    init=r"""
  for (i = 0; i < m; i++)
    p[i] = (DATA_TYPE)(i % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (DATA_TYPE)(i % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE) (i*(j+1) % n)/n;
  }
""",
    kernel=r"""
  for (i = 0; i < _PB_M; i++)
    s[i] = 0;
  for (i = 0; i < _PB_N; i++)
    {
      q[i] = SCALAR_VAL(0.0);
      for (j = 0; j < _PB_M; j++)
        {
          s[j] = s[j] + r[i] * A[i][j];
          q[i] = q[i] + A[i][j] * p[j];
        }
    }
""")

KERNELS["doitgen"] = dict(
    params=["NQ", "NR", "NP"],
    sizes=sizes((8, 10, 12), (20, 25, 30), (40, 50, 60), (140, 150, 160), (220, 250, 270)),
    arrays=[A("A", "NR", "NQ", "NP"), A("C4", "NP", "NP"), A("sum", "NP")],
    outputs=["A"],
    init=r"""
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (DATA_TYPE) ((i*j + k)%np) / np;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (DATA_TYPE) (i*j % np) / np;
""",
    kernel=r"""
  for (r = 0; r < _PB_NR; r++)
    for (q = 0; q < _PB_NQ; q++)  {
      for (p = 0; p < _PB_NP; p++)  {
        sum[p] = SCALAR_VAL(0.0);
        for (s = 0; s < _PB_NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < _PB_NP; p++)
        A[r][q][p] = sum[p];
    }
""")

KERNELS["mvt"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("x1", "N"), A("x2", "N"), A("y_1", "N"), A("y_2", "N"), A("A", "N", "N")],
    outputs=["x1", "x2"],
    init=r"""
  for (i = 0; i < n; i++)
    {
      x1[i] = (DATA_TYPE) (i % n) / n;
      x2[i] = (DATA_TYPE) ((i + 1) % n) / n;
      y_1[i] = (DATA_TYPE) ((i + 3) % n) / n;
      y_2[i] = (DATA_TYPE) ((i + 4) % n) / n;
      for (j = 0; j < n; j++)
        A[i][j] = (DATA_TYPE) (i*j % n) / n;
    }
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
""")

# ---------------------------------------------------------------- solvers
# init_array shared by cholesky, lu and ludcmp (positive semi-definite matrix)
_PSD_INIT = r"""
  for (i = 0; i < n; i++)
    {
      for (j = 0; j <= i; j++)
        A[i][j] = (DATA_TYPE)(-j % n) / n + 1;
      for (j = i+1; j < n; j++) {
        A[i][j] = 0;
      }
      A[i][i] = 1;
    }
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
"""

KERNELS["cholesky"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("A", "N", "N")],
    init_temps=[A("B", "N", "N")],
    outputs=["A"],
    init=_PSD_INIT,
    kernel=r"""
  for (i = 0; i < _PB_N; i++) {
     for (j = 0; j < i; j++) {
        for (k = 0; k < j; k++) {
           A[i][j] -= A[i][k] * A[j][k];
        }
        A[i][j] /= A[j][j];
     }
     for (k = 0; k < i; k++) {
        A[i][i] -= A[i][k] * A[i][k];
     }
     A[i][i] = SQRT_FUN(A[i][i]);
  }
""")

KERNELS["durbin"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("r", "N"), A("y", "N")],
    locals=[("z", ["N"]), S("alpha"), S("beta"), S("sum")],
    outputs=["y"],
    init=r"""
  for (i = 0; i < n; i++)
    {
      r[i] = (n+1-i);
    }
""",
    kernel=r"""
 y[0] = -r[0];
 beta = SCALAR_VAL(1.0);
 alpha = -r[0];

 for (k = 1; k < _PB_N; k++) {
   beta = (1-alpha*alpha)*beta;
   sum = SCALAR_VAL(0.0);
   for (i=0; i<k; i++) {
      sum += r[k-i-1]*y[i];
   }
   alpha = - (r[k] + sum)/beta;

   for (i=0; i<k; i++) {
      z[i] = y[i] + alpha*y[k-i-1];
   }
   for (i=0; i<k; i++) {
     y[i] = z[i];
   }
   y[k] = alpha;
 }
""")

KERNELS["gramschmidt"] = dict(
    params=["M", "N"],
    sizes=sizes((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600)),
    arrays=[A("A", "M", "N"), A("R", "N", "N"), A("Q", "M", "N")],
    locals=[S("nrm")],
    outputs=["R", "Q"],
    init=r"""
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (((DATA_TYPE) ((i*j) % m) / m )*100) + 10;
      Q[i][j] = 0.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
""",
    kernel=r"""
  for (k = 0; k < _PB_N; k++)
    {
      nrm = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_M; i++)
        nrm += A[i][k] * A[i][k];
      R[k][k] = SQRT_FUN(nrm);
      for (i = 0; i < _PB_M; i++)
        Q[i][k] = A[i][k] / R[k][k];
      for (j = k + 1; j < _PB_N; j++)
        {
          R[k][j] = SCALAR_VAL(0.0);
          for (i = 0; i < _PB_M; i++)
            R[k][j] += Q[i][k] * A[i][j];
          for (i = 0; i < _PB_M; i++)
            A[i][j] = A[i][j] - Q[i][k] * R[k][j];
        }
    }
""")

KERNELS["lu"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("A", "N", "N")],
    init_temps=[A("B", "N", "N")],
    outputs=["A"],
    init=_PSD_INIT,
    kernel=r"""
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <i; j++) {
       for (k = 0; k < j; k++) {
          A[i][j] -= A[i][k] * A[k][j];
       }
        A[i][j] /= A[j][j];
    }
   for (j = i; j < _PB_N; j++) {
       for (k = 0; k < i; k++) {
          A[i][j] -= A[i][k] * A[k][j];
       }
    }
  }
""")

KERNELS["ludcmp"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("A", "N", "N"), A("b", "N"), A("x", "N"), A("y", "N")],
    locals=[S("w")],
    init_temps=[A("B", "N", "N")],
    outputs=["x"],
    init=r"""
  fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++)
    {
      x[i] = 0;
      y[i] = 0;
      b[i] = (i+1)/fn/2.0 + 4;
    }
""" + _PSD_INIT,
    kernel=r"""
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <i; j++) {
       w = A[i][j];
       for (k = 0; k < j; k++) {
          w -= A[i][k] * A[k][j];
       }
        A[i][j] = w / A[j][j];
    }
   for (j = i; j < _PB_N; j++) {
       w = A[i][j];
       for (k = 0; k < i; k++) {
          w -= A[i][k] * A[k][j];
       }
       A[i][j] = w;
    }
  }

  for (i = 0; i < _PB_N; i++) {
     w = b[i];
     for (j = 0; j < i; j++)
        w -= A[i][j] * y[j];
     y[i] = w;
  }

   for (i = _PB_N-1; i >=0; i--) {
     w = y[i];
     for (j = i+1; j < _PB_N; j++)
        w -= A[i][j] * x[j];
     x[i] = w / A[i][i];
  }
""")

KERNELS["trisolv"] = dict(
    params=["N"],
    sizes=sizes((40,), (120,), (400,), (2000,), (4000,)),
    arrays=[A("L", "N", "N"), A("x", "N"), A("b", "N")],
    outputs=["x"],
    init=r"""
  for (i = 0; i < n; i++)
    {
      x[i] = - 999;
      b[i] =  i ;
      for (j = 0; j <= i; j++)
        L[i][j] = (DATA_TYPE) (i+n-j+1)*2/n;
    }
""",
    kernel=r"""
  for (i = 0; i < _PB_N; i++)
    {
      x[i] = b[i];
      for (j = 0; j <i; j++)
        x[i] -= L[i][j] * x[j];
      x[i] = x[i] / L[i][i];
    }
""")

# ---------------------------------------------------------------- medley
KERNELS["deriche"] = dict(
    params=["W", "H"],
    sizes=sizes((64, 64), (192, 128), (720, 480), (4096, 2160), (7680, 4320)),
    scalars_in=["alpha"],
    arrays=[A("imgIn", "W", "H"), A("imgOut", "W", "H"), A("y1", "W", "H"), A("y2", "W", "H")],
    locals=[S("xm1"), S("tm1"), S("ym1"), S("ym2"), S("xp1"), S("xp2"), S("tp1"), S("tp2"),
            S("yp1"), S("yp2")],
    outputs=["imgOut"],
    init=r"""
  alpha=0.25;
  for (i = 0; i < w; i++)
     for (j = 0; j < h; j++)
        imgIn[i][j] = (DATA_TYPE) ((313*i+991*j)%65536) / 65535.0f;
""",
    kernel=r"""
   k = (SCALAR_VAL(1.0)-EXP_FUN(-alpha))*(SCALAR_VAL(1.0)-EXP_FUN(-alpha))/(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*alpha*EXP_FUN(-alpha)-EXP_FUN(SCALAR_VAL(2.0)*alpha));
   a1 = k;
   a5 = k;
   a2 = k*EXP_FUN(-alpha)*(alpha-SCALAR_VAL(1.0));
   a6 = a2;
   a3 = k*EXP_FUN(-alpha)*(alpha+SCALAR_VAL(1.0));
   a7 = a3;
   a4 = -k*EXP_FUN(SCALAR_VAL(-2.0)*alpha);
   a8 = a4;
   b1 =  POW_FUN(SCALAR_VAL(2.0),-alpha);
   b2 = -EXP_FUN(SCALAR_VAL(-2.0)*alpha);
   c1 = 1;
   c2 = 1;

   for (i=0; i<_PB_W; i++) {
        ym1 = SCALAR_VAL(0.0);
        ym2 = SCALAR_VAL(0.0);
        xm1 = SCALAR_VAL(0.0);
        for (j=0; j<_PB_H; j++) {
            y1[i][j] = a1*imgIn[i][j] + a2*xm1 + b1*ym1 + b2*ym2;
            xm1 = imgIn[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }

    for (i=0; i<_PB_W; i++) {
        yp1 = SCALAR_VAL(0.0);
        yp2 = SCALAR_VAL(0.0);
        xp1 = SCALAR_VAL(0.0);
        xp2 = SCALAR_VAL(0.0);
        for (j=_PB_H-1; j>=0; j--) {
            y2[i][j] = a3*xp1 + a4*xp2 + b1*yp1 + b2*yp2;
            xp2 = xp1;
            xp1 = imgIn[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i=0; i<_PB_W; i++)
        for (j=0; j<_PB_H; j++) {
            imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);
        }

    for (j=0; j<_PB_H; j++) {
        tm1 = SCALAR_VAL(0.0);
        ym1 = SCALAR_VAL(0.0);
        ym2 = SCALAR_VAL(0.0);
        for (i=0; i<_PB_W; i++) {
            y1[i][j] = a5*imgOut[i][j] + a6*tm1 + b1*ym1 + b2*ym2;
            tm1 = imgOut[i][j];
            ym2 = ym1;
            ym1 = y1 [i][j];
        }
    }

    for (j=0; j<_PB_H; j++) {
        tp1 = SCALAR_VAL(0.0);
        tp2 = SCALAR_VAL(0.0);
        yp1 = SCALAR_VAL(0.0);
        yp2 = SCALAR_VAL(0.0);
        for (i=_PB_W-1; i>=0; i--) {
            y2[i][j] = a7*tp1 + a8*tp2 + b1*yp1 + b2*yp2;
            tp2 = tp1;
            tp1 = imgOut[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i=0; i<_PB_W; i++)
        for (j=0; j<_PB_H; j++)
            imgOut[i][j] = c2*(y1[i][j] + y2[i][j]);
""")

KERNELS["floyd-warshall"] = dict(
    params=["N"],
    sizes=sizes((60,), (180,), (500,), (2800,), (5600,)),
    arrays=[A("path", "N", "N")],
    outputs=["path"],
    init=r"""
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = i*j%7+1;
      if ((i+j)%13 == 0 || (i+j)%7==0 || (i+j)%11 == 0)
         path[i][j] = 999;
    }
""",
    kernel=r"""
  for (k = 0; k < _PB_N; k++)
    {
      for(i = 0; i < _PB_N; i++)
        for (j = 0; j < _PB_N; j++)
          path[i][j] = path[i][j] < path[i][k] + path[k][j] ?
            path[i][j] : path[i][k] + path[k][j];
    }
""")

KERNELS["nussinov"] = dict(
    params=["N"],
    sizes=sizes((60,), (180,), (500,), (2500,), (5500,)),
    arrays=[A("seq", "N", ty="i8"), A("table", "N", "N")],
    outputs=["table"],
    init=r"""
  for (i=0; i <n; i++) {
     seq[i] = (base)((i+1)%4);
  }
  for (i=0; i <n; i++)
     for (j=0; j <n; j++)
       table[i][j] = 0;
""",
    kernel=r"""
 for (i = _PB_N-1; i >= 0; i--) {
  for (j=i+1; j<_PB_N; j++) {

   if (j-1>=0)
      table[i][j] = max_score(table[i][j], table[i][j-1]);
   if (i+1<_PB_N)
      table[i][j] = max_score(table[i][j], table[i+1][j]);

   if (j-1>=0 && i+1<_PB_N) {
     /* don't allow adjacent elements to bond */
     if (i<j-1)
        table[i][j] = max_score(table[i][j], table[i+1][j-1]+match(seq[i], seq[j]));
     else
        table[i][j] = max_score(table[i][j], table[i+1][j-1]);
   }

   for (k=i+1; k<j; k++) {
      table[i][j] = max_score(table[i][j], table[i][k] + table[k+1][j]);
   }
  }
 }
""")

# ---------------------------------------------------------------- stencils
KERNELS["adi"] = dict(
    params=["TSTEPS", "N"],
    sizes=sizes((20, 20), (40, 60), (100, 200), (500, 1000), (1000, 2000)),
    arrays=[A("u", "N", "N"), A("v", "N", "N"), A("p", "N", "N"), A("q", "N", "N")],
    outputs=["u"],
    init=r"""
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      {
        u[i][j] =  (DATA_TYPE)(i + n-j) / n;
      }
""",
    kernel=r"""
  DX = SCALAR_VAL(1.0)/(DATA_TYPE)_PB_N;
  DY = SCALAR_VAL(1.0)/(DATA_TYPE)_PB_N;
  DT = SCALAR_VAL(1.0)/(DATA_TYPE)_PB_TSTEPS;
  B1 = SCALAR_VAL(2.0);
  B2 = SCALAR_VAL(1.0);
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 /  SCALAR_VAL(2.0);
  b = SCALAR_VAL(1.0)+mul1;
  c = a;
  d = -mul2 / SCALAR_VAL(2.0);
  e = SCALAR_VAL(1.0)+mul2;
  f = d;

 for (t=1; t<=_PB_TSTEPS; t++) {
    for (i=1; i<_PB_N-1; i++) {
      v[0][i] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = v[0][i];
      for (j=1; j<_PB_N-1; j++) {
        p[i][j] = -c / (a*p[i][j-1]+b);
        q[i][j] = (-d*u[j][i-1]+(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*d)*u[j][i] - f*u[j][i+1]-a*q[i][j-1])/(a*p[i][j-1]+b);
      }

      v[_PB_N-1][i] = SCALAR_VAL(1.0);
      for (j=_PB_N-2; j>=1; j--) {
        v[j][i] = p[i][j] * v[j+1][i] + q[i][j];
      }
    }
    for (i=1; i<_PB_N-1; i++) {
      u[i][0] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = u[i][0];
      for (j=1; j<_PB_N-1; j++) {
        p[i][j] = -f / (d*p[i][j-1]+e);
        q[i][j] = (-a*v[i-1][j]+(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*a)*v[i][j] - c*v[i+1][j]-d*q[i][j-1])/(d*p[i][j-1]+e);
      }
      u[i][_PB_N-1] = SCALAR_VAL(1.0);
      for (j=_PB_N-2; j>=1; j--) {
        u[i][j] = p[i][j] * u[i][j+1] + q[i][j];
      }
    }
  }
""")

KERNELS["fdtd-2d"] = dict(
    params=["TMAX", "NX", "NY"],
    sizes=sizes((20, 20, 30), (40, 60, 80), (100, 200, 240), (500, 1000, 1200), (1000, 2000, 2600)),
    arrays=[A("ex", "NX", "NY"), A("ey", "NX", "NY"), A("hz", "NX", "NY"), A("_fict_", "TMAX")],
    outputs=["ex", "ey", "hz"],
    init=r"""
  for (i = 0; i < tmax; i++)
    _fict_[i] = (DATA_TYPE) i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++)
      {
        ex[i][j] = ((DATA_TYPE) i*(j+1)) / nx;
        ey[i][j] = ((DATA_TYPE) i*(j+2)) / ny;
        hz[i][j] = ((DATA_TYPE) i*(j+3)) / nx;
      }
""",
    kernel=r"""
  for(t = 0; t < _PB_TMAX; t++)
    {
      for (j = 0; j < _PB_NY; j++)
        ey[0][j] = _fict_[t];
      for (i = 1; i < _PB_NX; i++)
        for (j = 0; j < _PB_NY; j++)
          ey[i][j] = ey[i][j] - SCALAR_VAL(0.5)*(hz[i][j]-hz[i-1][j]);
      for (i = 0; i < _PB_NX; i++)
        for (j = 1; j < _PB_NY; j++)
          ex[i][j] = ex[i][j] - SCALAR_VAL(0.5)*(hz[i][j]-hz[i][j-1]);
      for (i = 0; i < _PB_NX - 1; i++)
        for (j = 0; j < _PB_NY - 1; j++)
          hz[i][j] = hz[i][j] - SCALAR_VAL(0.7)*  (ex[i][j+1] - ex[i][j] +
                                       ey[i+1][j] - ey[i][j]);
    }
""")

KERNELS["heat-3d"] = dict(
    params=["TSTEPS", "N"],
    sizes=sizes((20, 10), (40, 20), (100, 40), (500, 120), (1000, 200)),
    arrays=[A("A", "N", "N", "N"), A("B", "N", "N", "N")],
    outputs=["A"],
    init=r"""
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++) {
        B[i][j][k] = (DATA_TYPE) (i + j + (n-k))* 10 / (n);
        A[i][j][k] = B[i][j][k];
      }
""",
    kernel=r"""
    for (t = 1; t <= TSTEPS; t++) {
        for (i = 1; i < _PB_N-1; i++) {
            for (j = 1; j < _PB_N-1; j++) {
                for (k = 1; k < _PB_N-1; k++) {
                    B[i][j][k] =   SCALAR_VAL(0.125) * (A[i+1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i-1][j][k])
                                 + SCALAR_VAL(0.125) * (A[i][j+1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j-1][k])
                                 + SCALAR_VAL(0.125) * (A[i][j][k+1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k-1])
                                 + A[i][j][k];
                }
            }
        }
        for (i = 1; i < _PB_N-1; i++) {
           for (j = 1; j < _PB_N-1; j++) {
               for (k = 1; k < _PB_N-1; k++) {
                   A[i][j][k] =   SCALAR_VAL(0.125) * (B[i+1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i-1][j][k])
                                + SCALAR_VAL(0.125) * (B[i][j+1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j-1][k])
                                + SCALAR_VAL(0.125) * (B[i][j][k+1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k-1])
                                + B[i][j][k];
               }
           }
       }
    }
""")

KERNELS["jacobi-1d"] = dict(
    params=["TSTEPS", "N"],
    sizes=sizes((20, 30), (40, 120), (100, 400), (500, 2000), (1000, 4000)),
    arrays=[A("A", "N"), A("B", "N")],
    outputs=["A"],
    init=r"""
  for (i = 0; i < n; i++)
      {
        A[i] = ((DATA_TYPE) i+ 2) / n;
        B[i] = ((DATA_TYPE) i+ 3) / n;
      }
""",
    kernel=r"""
  for (t = 0; t < _PB_TSTEPS; t++)
    {
      for (i = 1; i < _PB_N - 1; i++)
        B[i] = 0.33333 * (A[i-1] + A[i] + A[i + 1]);
      for (i = 1; i < _PB_N - 1; i++)
        A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
    }
""")

KERNELS["jacobi-2d"] = dict(
    params=["TSTEPS", "N"],
    sizes=sizes((20, 30), (40, 90), (100, 250), (500, 1300), (1000, 2800)),
    arrays=[A("A", "N", "N"), A("B", "N", "N")],
    outputs=["A"],
    init=r"""
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      {
        A[i][j] = ((DATA_TYPE) i*(j+2) + 2) / n;
        B[i][j] = ((DATA_TYPE) i*(j+3) + 3) / n;
      }
""",
    kernel=r"""
  for (t = 0; t < _PB_TSTEPS; t++)
    {
      for (i = 1; i < _PB_N - 1; i++)
        for (j = 1; j < _PB_N - 1; j++)
          B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);
      for (i = 1; i < _PB_N - 1; i++)
        for (j = 1; j < _PB_N - 1; j++)
          A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j]);
    }
""")

KERNELS["seidel-2d"] = dict(
    params=["TSTEPS", "N"],
    sizes=sizes((20, 40), (40, 120), (100, 400), (500, 2000), (1000, 4000)),
    arrays=[A("A", "N", "N")],
    outputs=["A"],
    init=r"""
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = ((DATA_TYPE) i*(j+2) + 2) / n;
""",
    kernel=r"""
  for (t = 0; t <= _PB_TSTEPS - 1; t++)
    for (i = 1; i<= _PB_N - 2; i++)
      for (j = 1; j <= _PB_N - 2; j++)
        A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                   + A[i][j-1] + A[i][j] + A[i][j+1]
                   + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1])/SCALAR_VAL(9.0);
""")

ORDER = ["correlation", "covariance", "gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm",
         "2mm", "3mm", "atax", "bicg", "doitgen", "mvt", "cholesky", "durbin", "gramschmidt", "lu",
         "ludcmp", "trisolv", "deriche", "floyd-warshall", "nussinov", "adi", "fdtd-2d", "heat-3d",
         "jacobi-1d", "jacobi-2d", "seidel-2d"]

assert sorted(ORDER) == sorted(KERNELS)
