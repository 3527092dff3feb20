# Build ScreenLab for Windows (x64): the one-folder bundle dist\ScreenLab\ and the installer
# dist\ScreenLab-<version>-windows-x64-setup.exe (Inno Setup 6).
#
#   powershell -ExecutionPolicy Bypass -File packaging\build_windows.ps1
#   powershell -ExecutionPolicy Bypass -File packaging\build_windows.ps1 -KeepVenv -NoInstaller
#
# Needs: Python 3.11 x64 from python.org (the "py" launcher), Inno Setup 6 (ISCC.exe; winget install
# JRSoftware.InnoSetup) unless -NoInstaller. Like build_linux.sh it makes its own environment
# (build\venv: pip install . pyinstaller==6.22.3), then smoke-tests the bundle offscreen.
# The bundle has two executables sharing _internal\: ScreenLab.exe (windowed, what the Start menu
# opens) and screenlab-cli.exe (console: the command line, and --smoke / --bundle-selfcheck output).
param(
    [string]$Python = "py",
    [string[]]$PythonArgs = @("-3.11"),
    [switch]$KeepVenv,
    [switch]$NoInstaller,
    [int]$SizeBudgetMB = 350
)
$ErrorActionPreference = "Stop"
Set-StrictMode -Version Latest
$PyInstallerVersion = "6.22.3"
$Root = Split-Path -Parent $PSScriptRoot
Set-Location $Root
$Build = Join-Path $Root "build"
$Venv = Join-Path $Build "venv"
$VenvPy = Join-Path $Venv "Scripts\python.exe"
$Dist = Join-Path $Root "dist"
$AppDir = Join-Path $Dist "ScreenLab"

function Step($text) { Write-Host "`n== $text" -ForegroundColor Cyan }
function Check($what) { if ($LASTEXITCODE -ne 0) { throw "$what failed (exit code $LASTEXITCODE)" } }

$Version = & $Python @PythonArgs -c "import tomllib; print(tomllib.load(open('pyproject.toml', 'rb'))['project']['version'])"
Check "reading the version (is Python 3.11 installed? py -3.11 --version)"

Step "build environment ($Venv)"
if (-not $KeepVenv -or -not (Test-Path $VenvPy)) {
    if (Test-Path $Venv) { Remove-Item -Recurse -Force $Venv }
    & $Python @PythonArgs -m venv $Venv; Check "venv"
}
& $VenvPy -m pip install --quiet --disable-pip-version-check ".[docs]" "pyinstaller==$PyInstallerVersion"; Check "pip install"
if ($KeepVenv) { & $VenvPy -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps .; Check "pip reinstall" }

Step "icon"
New-Item -ItemType Directory -Force (Join-Path $Build "icons") | Out-Null
$Ico = Join-Path $Build "icons\screenlab.ico"
& $VenvPy -c "from PIL import Image; Image.open('resources/icons/screenlab.png').save(r'$Ico', sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])"
Check "icon"

Step "user guide (docs\guide -> build\guide)"
& (Join-Path $Venv "Scripts\mkdocs.exe") build --quiet --strict --site-dir (Join-Path $Build "guide"); Check "mkdocs build"

Step "PyInstaller $PyInstallerVersion (one-folder)"
if (Test-Path $AppDir) { Remove-Item -Recurse -Force $AppDir }
& (Join-Path $Venv "Scripts\pyinstaller.exe") --noconfirm --clean --log-level WARN --distpath $Dist `
    --workpath (Join-Path $Build "pyinstaller") packaging\screenlab.spec
Check "PyInstaller"

Step "smoke test (offscreen, fresh user folders)"
$Scratch = Join-Path ([IO.Path]::GetTempPath()) ("screenlab-smoke-" + [guid]::NewGuid())
New-Item -ItemType Directory $Scratch | Out-Null
$saved = @{}
$vars = @{ QT_QPA_PLATFORM = "offscreen"; SCREENLAB_DATA_DIR = "$Scratch\data"; SCREENLAB_CONFIG_DIR = "$Scratch\config";
           SCREENLAB_LOG_DIR = "$Scratch\log"; SCREENLAB_SMOKE_SCREENSHOT = "$Scratch\smoke.png" }
foreach ($k in $vars.Keys) { $saved[$k] = [Environment]::GetEnvironmentVariable($k); [Environment]::SetEnvironmentVariable($k, $vars[$k]) }
try {
    $cli = Join-Path $AppDir "screenlab-cli.exe"
    $watch = [Diagnostics.Stopwatch]::StartNew()
    & $cli --smoke; Check "screenlab-cli --smoke"
    Write-Host ("first start (creates the demo project): {0:N2} s" -f $watch.Elapsed.TotalSeconds)
    if (-not (Test-Path "$Scratch\smoke.png")) { throw "no screenshot" }
    if (-not (Test-Path "$Scratch\data\demo-project\screenlab.sqlite")) { throw "no demo project" }
    $watch.Restart(); & $cli --smoke; Check "second start"
    Write-Host ("second start: {0:N2} s" -f $watch.Elapsed.TotalSeconds)
    & $cli --bundle-selfcheck; Check "bundle self-check"
    if (Get-ChildItem "$Scratch\log" -Filter "crash-*.log" -ErrorAction SilentlyContinue) { throw "crash log written in $Scratch\log" }
} finally {
    foreach ($k in $vars.Keys) { [Environment]::SetEnvironmentVariable($k, $saved[$k]) }
    Remove-Item -Recurse -Force $Scratch -ErrorAction SilentlyContinue
}

$Bytes = (Get-ChildItem -Recurse -File $AppDir | Measure-Object -Property Length -Sum).Sum
Write-Host ("bundle: {0:N1} MB unpacked" -f ($Bytes / 1MB))
if ($Bytes -gt $SizeBudgetMB * 1MB) { Write-Warning ("over the $SizeBudgetMB MB budget by {0:N1} MB (packaging\README.md)" -f (($Bytes / 1MB) - $SizeBudgetMB)) }

if (-not $NoInstaller) {
    Step "installer (Inno Setup)"
    $iscc = (Get-Command ISCC.exe -ErrorAction SilentlyContinue).Source
    if (-not $iscc) {
        foreach ($p in @("${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe", "$env:ProgramFiles\Inno Setup 6\ISCC.exe",
                         "$env:LOCALAPPDATA\Programs\Inno Setup 6\ISCC.exe")) { if (Test-Path $p) { $iscc = $p; break } }
    }
    if (-not $iscc) { throw "Inno Setup 6 not found (winget install JRSoftware.InnoSetup), or pass -NoInstaller" }
    & $iscc /Q "/DAppVersion=$Version" "/DSourceDir=$AppDir" "/DOutputDir=$Dist" "/DIconFile=$Ico" packaging\windows\screenlab.iss
    Check "ISCC"
    $Setup = Join-Path $Dist "ScreenLab-$Version-windows-x64-setup.exe"
    Write-Host ("installer: $Setup ({0:N1} MB)" -f ((Get-Item $Setup).Length / 1MB))
    # To sign: signtool sign /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 /a $Setup
    # (sign dist\ScreenLab\*.exe before running ISCC too, so SmartScreen trusts the installed files).
    # (a signed installer: sign it before this, the checksum is of the file users download)
    # dist\SHA256SUMS in `sha256sum -c`'s format ("<hash>  <name>"), this installer's line replaced
    $Sums = Join-Path $Dist "SHA256SUMS"
    $Name = Split-Path $Setup -Leaf
    $Line = "{0}  {1}" -f (Get-FileHash -Algorithm SHA256 $Setup).Hash.ToLower(), $Name
    $Kept = @(if (Test-Path $Sums) { Get-Content $Sums | Where-Object { $_ -notmatch ("  " + [regex]::Escape($Name) + '$') } })
    Set-Content -Path $Sums -Value ($Kept + $Line) -Encoding ascii
    Write-Host "sha256: $Line (in $Sums)"
}
