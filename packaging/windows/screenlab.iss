; Inno Setup 6 script for ScreenLab: installs the one-folder PyInstaller build (dist\ScreenLab\).
; Built by packaging\build_windows.ps1, which passes the version and folders:
;   ISCC /DAppVersion=0.1.0 /DSourceDir=...\dist\ScreenLab /DOutputDir=...\dist /DIconFile=...\build\icons\screenlab.ico screenlab.iss
; Per-user install by default (no administrator rights needed); "Install for all users" is offered.
; Uninstalling removes the program, then asks whether to remove the user's settings, caches and logs too, and
; then whether to remove the projects in ScreenLab's data folder: the answers run `screenlab-cli uninstall-data`
; (the same function as the app's Help > About > Remove my data…) for the user running the uninstaller. A silent
; uninstall (/SILENT, /VERYSILENT) asks nothing and keeps the data.

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\ScreenLab"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif
#ifndef IconFile
  #define IconFile "..\..\build\icons\screenlab.ico"
#endif

[Setup]
; AppId identifies the product for upgrades and uninstall: never change it
AppId={{069C7F18-B37C-4654-B4D8-30B007B725BF}
AppName=ScreenLab
AppVersion={#AppVersion}
AppVerName=ScreenLab {#AppVersion}
AppPublisher=ScreenLab
AppComments=Label screens, synthesize distracting screens and evaluate GUI agents
DefaultDirName={autopf}\ScreenLab
DefaultGroupName=ScreenLab
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#OutputDir}
OutputBaseFilename=ScreenLab-{#AppVersion}-windows-x64-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\ScreenLab.exe
UninstallDisplayName=ScreenLab {#AppVersion}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; an upgrade must not keep libraries of the previous version next to the new ones
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\ScreenLab"; Filename: "{app}\ScreenLab.exe"; Comment: "Label screens for GUI-agent research"
Name: "{autodesktop}\ScreenLab"; Filename: "{app}\ScreenLab.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\ScreenLab.exe"; Description: "{cm:LaunchProgram,ScreenLab}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
Type: filesandordirs; Name: "{app}\_internal"

[Code]
// Before the program's files go (the command needs them): the user's data, only when the user says so.
procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Args: String;
  ResultCode: Integer;
begin
  if (CurUninstallStep <> usUninstall) or UninstallSilent then
    exit;
  if MsgBox('Also remove your ScreenLab settings, caches and logs?' + #13#10 +
            '(in ' + ExpandConstant('{localappdata}') + '\ScreenLab)', mbConfirmation, MB_YESNO or MB_DEFBUTTON2) <> IDYES then
    exit;
  Args := 'uninstall-data --yes';
  if MsgBox('Also remove the projects in ScreenLab''s data folder (the demo and the folders you opened), with ' +
            'their screenshots and labels?' + #13#10 + 'Projects you saved elsewhere are kept.',
            mbConfirmation, MB_YESNO or MB_DEFBUTTON2) = IDYES then
    Args := Args + ' --projects';
  if not Exec(ExpandConstant('{app}\screenlab-cli.exe'), Args, '', SW_HIDE, ewWaitUntilTerminated, ResultCode)
     or (ResultCode <> 0) then
    MsgBox('Some of your ScreenLab data could not be removed (is ScreenLab still open?). It is in ' +
           ExpandConstant('{localappdata}') + '\ScreenLab.', mbError, MB_OK);
end;
